// merchant-labels (docs/plugins.md): on every new or edited transaction, finds the
// first merchant of `coffer.config.merchants` in its description or payee and
// labels it {category, merchant}.
//
// Writing labels emits label.applied, never transaction.updated, so the update
// hook is not fed its own writes. It still writes only when the labels differ:
// an event can be handed over again after a restart (at least once), and a
// write that changes nothing should not be attempted at all.
/* global coffer */

/** Entries of the merchant list already reported as malformed (once per sandbox). */
const reported = new Set()

/** "starbucks=coffee, blue bottle=coffee" → [{merchant: 'starbucks', category: 'coffee'}, ...] */
function parseMerchants(text) {
  const merchants = []
  for (const entry of String(text).split(',')) {
    const eq = entry.indexOf('=')
    const merchant = eq < 0 ? '' : entry.slice(0, eq).trim().toLowerCase()
    const category = eq < 0 ? '' : entry.slice(eq + 1).trim()
    if (merchant === '' || category === '') {
      if (entry.trim() !== '' && !reported.has(entry)) {
        reported.add(entry)
        coffer.log('warn', 'merchant-labels: skipped, not merchant=category', { entry })
      }
      continue
    }
    merchants.push({ merchant, category })
  }
  return merchants
}

/** The first merchant whose text appears in the description or the payee (any case), or null. */
function findMerchant(transaction, merchants) {
  const fields = [transaction.description, transaction.payee]
    .filter((field) => typeof field === 'string')
    .map((field) => field.toLowerCase())
  return merchants.find(({ merchant }) => fields.some((field) => field.includes(merchant))) ?? null
}

/** The event's data is the transaction as the event recorded it (SPEC 2.6). */
async function labelTransaction(event) {
  const found = findMerchant(event.data, parseMerchants(coffer.config.merchants))
  if (found === null) return
  // Compare with the labels it has now, not those of the snapshot: the event may
  // be an old one handed over again, and someone may have labelled it since.
  const current = await coffer.getTransaction(event.entity_id)
  if (current === null) return // deleted since
  const labels = current.labels ?? {}
  if (labels.category === found.category && labels.merchant === found.merchant) return
  await coffer.applyLabels(event.entity_id, { category: found.category, merchant: found.merchant })
  coffer.log('debug', 'merchant-labels: labelled', {
    id: event.entity_id,
    category: found.category,
    merchant: found.merchant,
  })
}

export async function onTransactionCreate(event) {
  await labelTransaction(event)
}

export async function onTransactionUpdate(event) {
  await labelTransaction(event)
}
