// Placeholder until this page is built (issue 13).
export function NewTransactionPage() {
  return (
    <section>
      <h1>New transaction</h1>
      <p class="notice">This page is being built.</p>
    </section>
  )
}
