// MCP sync tools on the success path: `sync_source` starts the same engine run
// as REST, whose rows, counts and events REST then shows.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { connectMcp, toolOk } from './helpers/mcp.js'
import { allTransactions, startCsvApp, waitForRun, type Json } from './sync-helpers.js'

const TOKEN = 'mcp-sync-test-dashboard-token-0123456789'

test('sync_source over MCP imports a CSV folder; a second call finds it unchanged', async (t) => {
  const { app } = await startCsvApp(
    t,
    [
      {
        name: 'Checking',
        files: {
          'jan.csv':
            'Date,Description,Amount\n2024-01-02,Coffee,-3.50\n2024-01-03,Salary,2500.00\n',
        },
      },
    ],
    { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } },
  )
  const client = await connectMcp(t, app, TOKEN)
  const syncSource = async (): Promise<Json> => {
    const started = (await toolOk(client, 'sync_source', { type: 'csv' })) as { run_id: string }
    assert.deepEqual(Object.keys(started), ['run_id'])
    return waitForRun(app, started.run_id, TOKEN)
  }

  const first = await syncSource()
  assert.equal(first.status, 'success')
  assert.deepEqual(first.counts.csv, { inserted: 2, updated: 0, unchanged: 0, skipped: 0 })
  const rows = await allTransactions(app, 'csv:checking', TOKEN)
  assert.deepEqual(rows.map((r: Json) => [r.description, r.amount]).sort(), [
    ['Coffee', '-3.50'],
    ['Salary', '2500.00'],
  ])

  const second = await syncSource()
  assert.equal(second.status, 'success')
  assert.deepEqual(second.counts.csv, { inserted: 0, updated: 0, unchanged: 2, skipped: 0 })
  const latest = await app.request('GET', '/api/v1/sync', { token: TOKEN })
  assert.equal(latest.body.latest.id, second.id)
})
