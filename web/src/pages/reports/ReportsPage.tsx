// Placeholder until this page is built (issue 13).
export function ReportsPage() {
  return (
    <section>
      <h1>Reports</h1>
      <p class="notice">This page is being built.</p>
    </section>
  )
}
