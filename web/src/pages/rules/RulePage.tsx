// Placeholder until this page is built (issue 13).
export function RulePage() {
  return (
    <section>
      <h1>Rule</h1>
      <p class="notice">This page is being built.</p>
    </section>
  )
}
