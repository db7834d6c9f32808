// Pages whose feature this version of the service does not have yet (settings,
// plugins, self-update): they say so instead of failing.
export function UnavailablePage({ feature, detail }: { feature: string; detail: string }) {
  return (
    <section>
      <h1>{feature}</h1>
      <div class="notice" role="note">
        <p>
          <strong>{feature} is not available in this version of Coffer.</strong>
        </p>
        <p>{detail}</p>
      </div>
    </section>
  )
}
