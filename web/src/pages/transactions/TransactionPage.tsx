// Placeholder until this page is built (issue 13).
export function TransactionPage() {
  return (
    <section>
      <h1>Transaction</h1>
      <p class="notice">This page is being built.</p>
    </section>
  )
}
