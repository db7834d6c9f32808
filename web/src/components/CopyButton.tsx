import { useState } from 'preact/hooks'

/** Copies a value (a secret shown once, an id) to the clipboard and says so. */
export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false)
  return (
    <button
      type="button"
      onClick={() => {
        void navigator.clipboard
          ?.writeText(value)
          .then(() => {
            setCopied(true)
            setTimeout(() => setCopied(false), 2000)
          })
          .catch(() => setCopied(false))
      }}
    >
      {copied ? 'Copied' : label}
    </button>
  )
}
