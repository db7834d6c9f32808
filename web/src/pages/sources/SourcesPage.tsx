// Placeholder until this page is built (issue 13).
export function SourcesPage() {
  return (
    <section>
      <h1>Sources</h1>
      <p class="notice">This page is being built.</p>
    </section>
  )
}
