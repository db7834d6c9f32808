// What a rule sets, in brief: its labels as key:value chips and its extensions
// as key = JSON (the value's exact JSON text, so 10 and "10" read differently).

export function RuleEffects({
  labels,
  extensions,
}: {
  labels: Record<string, string>
  extensions: Record<string, unknown>
}) {
  const labelEntries = Object.entries(labels)
  const extensionEntries = Object.entries(extensions)
  if (labelEntries.length === 0 && extensionEntries.length === 0) {
    return <span class="hint">nothing</span>
  }
  return (
    <span class="chips">
      {labelEntries.map(([key, value]) => (
        <span class="chip" key={`l:${key}`} title={`${key}:${value}`}>
          {key}:{value}
        </span>
      ))}
      {extensionEntries.map(([key, value]) => (
        <span class="chip ext" key={`x:${key}`}>
          {key} = {JSON.stringify(value)}
        </span>
      ))}
    </span>
  )
}
