// Placeholder until this page is built (issue 13).
export function WebhooksPage() {
  return (
    <section>
      <h1>Webhooks</h1>
      <p class="notice">This page is being built.</p>
    </section>
  )
}
