// What each [[csv.folders]] entry becomes in the ledger (SPEC 1.3 rule 1, CONTRACT 3):
// one account csv:<slug of the folder name> under the institution
// csv:<slug of org>, with the folder's currency.
import { createHash } from 'node:crypto'
import type { CsvFolder } from '../../config/index.js'
import type { IngestAccount, IngestOrganization } from '../../ledger/ingest.js'
import { checkMapping } from './columns.js'
import { layoutHasYear } from './date-layout.js'

/**
 * Lower-case ASCII letters and digits joined by '-': "Chase Checking (old)" →
 * "chase-checking-old". Accents are dropped ("Crédit" → "credit"); a name with no
 * such character at all gets "f-" and 12 hex digits of its SHA-256.
 */
export function slug(name: string): string {
  const ascii = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  return ascii !== '' ? ascii : `f-${createHash('sha256').update(name).digest('hex').slice(0, 12)}`
}

export interface FolderPlan {
  folder: CsvFolder
  organization: IngestOrganization
  account: IngestAccount
}

/** The usable folders, and why the others are left out. */
export function planFolders(folders: readonly CsvFolder[]): {
  plans: FolderPlan[]
  problems: string[]
} {
  const plans: FolderPlan[] = []
  const problems: string[] = []
  const byAccount = new Map<string, string>()
  for (const folder of folders) {
    const accountId = `csv:${slug(folder.name)}`
    const clash = byAccount.get(accountId)
    if (clash !== undefined) {
      problems.push(
        `folder ${JSON.stringify(folder.name)}: its account id ${accountId} is already used by folder ${JSON.stringify(clash)}; skipped`,
      )
      continue
    }
    const mappingProblem = checkMapping(folder.mapping)
    const format = folder.mapping.date_format
    const problem =
      mappingProblem ??
      (format !== null && !layoutHasYear(format)
        ? `mapping.date_format ${JSON.stringify(format)} has no year (2006 or 06)`
        : null)
    if (problem !== null) {
      problems.push(`folder ${JSON.stringify(folder.name)}: ${problem}; skipped`)
      continue
    }
    byAccount.set(accountId, folder.name)
    const orgId = `csv:${slug(folder.org)}`
    plans.push({
      folder,
      organization: { id: orgId, name: folder.org },
      account: {
        id: accountId,
        org_id: orgId,
        name: folder.account,
        currency: folder.currency.toUpperCase(),
        // CSV exports carry no balance; see docs/csv.md.
        balance: '0',
      },
    })
  }
  return { plans, problems }
}
