// The rules, oldest first (the order they apply in, so a later rule wins a key
// two rules set): what each matches, what it sets, whether it is on; and a run
// of every enabled rule over the whole ledger.
import { useState } from 'preact/hooks'
import { api, type ApiError, type Result } from '../../api/client.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { IfWrite, ReadOnlyNotice } from '../../components/Guard.js'
import { plural } from '../../components/format.js'
import { toApiError, useApi } from '../../components/useApi.js'
import { notify } from '../../stores/notices.js'
import { RuleEffects } from './RuleEffects.js'
import './rules.css'

export type Rule = Result<'GET /rules/:id'>
type RunResult = Result<'POST /rules/run'>

/** Every rule, paged through (rules are few). */
async function loadRules(signal: AbortSignal): Promise<Rule[]> {
  const all: Rule[] = []
  for (let offset = 0; ; offset += 1000) {
    const page = await api('GET /rules', { query: { limit: 1000, offset }, signal })
    all.push(...page.rules)
    if (page.rules.length === 0 || all.length >= page.total) return all
  }
}

function RunAll({ rules }: { rules: readonly Rule[] }) {
  const [busy, setBusy] = useState(false)
  const [result, setResult] = useState<RunResult | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const enabled = rules.filter((r) => r.enabled).length
  const run = async () => {
    setBusy(true)
    setError(null)
    setResult(null)
    try {
      const outcome = await api('POST /rules/run')
      setResult(outcome)
      notify(`Rules run: ${plural(outcome.updated, 'transaction')} updated`)
    } catch (failure) {
      setError(toApiError(failure))
    } finally {
      setBusy(false)
    }
  }
  return (
    <div class="run-all">
      <button type="button" disabled={busy || enabled === 0} onClick={() => void run()}>
        {busy ? 'Running…' : 'Run all enabled rules'}
      </button>
      {enabled === 0 ? <span class="hint">No rule is enabled.</span> : null}
      {result ? (
        <p class="run-result" role="status">
          Matched {plural(result.matched, 'transaction')}, updated {result.updated.toLocaleString()}
          .
        </p>
      ) : null}
      {result?.failed?.length ? (
        <div class="error-note" role="alert">
          <strong>Some rules could not run and were skipped</strong>
          <ul>
            {result.failed.map((f) => (
              <li key={f.rule_id}>
                <a href={`/rules/${encodeURIComponent(f.rule_id)}`}>{f.name}</a>: {f.detail}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <ErrorNote error={error} context="The rules did not run" />
    </div>
  )
}

export function RulesPage() {
  const rules = useApi(loadRules, [])
  const list = rules.data ?? []
  return (
    <section class="rules-page">
      <div class="page-head">
        <h1>Rules</h1>
        <IfWrite>
          <a class="button primary" href="/rules/new">
            New rule
          </a>
        </IfWrite>
      </div>
      <p class="hint">
        A rule sets labels and extensions on the transactions its query matches: when it runs, and
        on every new transaction. Rules apply oldest first, so a later rule wins a key that two set.
      </p>
      <ReadOnlyNotice />
      <ErrorNote error={rules.error} context="Could not load the rules" />
      {rules.loading && !rules.data ? <p class="loading">Loading…</p> : null}
      {rules.data && list.length === 0 ? (
        <div class="card">
          <p>No rules yet.</p>
          <IfWrite>
            <p class="hint">
              Create one with New rule: a search query, and the labels or extensions to set.
            </p>
          </IfWrite>
        </div>
      ) : null}
      {list.length > 0 ? (
        <>
          <IfWrite>
            <RunAll rules={list} />
          </IfWrite>
          <table class="rows rules">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Query</th>
                <th scope="col">Sets</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {list.map((rule) => (
                <tr key={rule.id}>
                  <td class="name">
                    <a href={`/rules/${encodeURIComponent(rule.id)}`}>{rule.name}</a>
                  </td>
                  <td class="query">
                    <code>{rule.query || '(every transaction)'}</code>
                  </td>
                  <td class="sets">
                    <RuleEffects labels={rule.labels} extensions={rule.extensions} />
                  </td>
                  <td class="state">
                    {rule.enabled ? (
                      <span class="badge ok">enabled</span>
                    ) : (
                      <span class="badge">disabled</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </section>
  )
}
