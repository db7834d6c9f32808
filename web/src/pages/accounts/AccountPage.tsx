// Placeholder until this page is built (issue 13).
export function AccountPage() {
  return (
    <section>
      <h1>Account</h1>
      <p class="notice">This page is being built.</p>
    </section>
  )
}
