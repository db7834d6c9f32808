// Placeholder until this page is built (issue 13).
export function AccountsPage() {
  return (
    <section>
      <h1>Accounts</h1>
      <p class="notice">This page is being built.</p>
    </section>
  )
}
