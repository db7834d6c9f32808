// Placeholder until this page is built (issue 13).
export function ApiKeysPage() {
  return (
    <section>
      <h1>API keys</h1>
      <p class="notice">This page is being built.</p>
    </section>
  )
}
