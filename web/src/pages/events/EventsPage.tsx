// Placeholder until this page is built (issue 13).
export function EventsPage() {
  return (
    <section>
      <h1>Events</h1>
      <p class="notice">This page is being built.</p>
    </section>
  )
}
