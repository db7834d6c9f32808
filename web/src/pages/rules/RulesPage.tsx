// Placeholder until this page is built (issue 13).
export function RulesPage() {
  return (
    <section>
      <h1>Rules</h1>
      <p class="notice">This page is being built.</p>
    </section>
  )
}
