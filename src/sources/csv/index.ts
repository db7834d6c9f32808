// The CSV source (SPEC 1.3): CSV files in folders, each folder one account. A
// folder is a local directory or a drive folder (drive.ts); both are re-scanned
// in full on every sync and streamed, row by row, to the engine.
import type { Readable } from 'node:stream'
import { REDACTED, type Config } from '../../config/index.js'
import { Invalid, NotFound } from '../../errors.js'
import type { IngestTransaction } from '../../ledger/ingest.js'
import type { Batch, Skip, Source, SourceContext, SourceState } from '../source.js'
import type { CsvFileRef } from './backend.js'
import { guessingParser, layoutParser } from './date-layout.js'
import {
  DRIVE_CREDENTIAL_ID,
  DriveAccessToken,
  DriveClient,
  driveTokenOf,
  forgetDriveToken,
  storeDriveToken,
} from './drive.js'
import { planFolders, type FolderPlan } from './folders.js'
import { listLocalFiles } from './local.js'
import { readCsvRowsInWorker, WORKER_MIN_BYTES } from './parse-in-worker.js'
import { CsvFileError, readCsvRows, type FileReport } from './read-file.js'

export interface CsvSource extends Source {
  type: 'csv'
  /** The drive access token, shared by the syncs and the OAuth callback. */
  driveAccess: DriveAccessToken
}

export function createCsvSource(): CsvSource {
  const driveAccess = new DriveAccessToken()
  return {
    type: 'csv',
    title: 'CSV files',
    driveAccess,
    // SPEC 1.3 rule 4: a source with no folders is not started.
    isConfigured: (config) => config.csv.folders.length > 0,
    state,
    fetch: (sctx) => fetchCsv(sctx, driveAccess),
    async setCredential(sctx, body) {
      const token = body.token.trim()
      if (token === '' || /\s/.test(token)) {
        throw Invalid.field('token', 'must be a drive refresh token without white space')
      }
      await storeDriveToken(sctx, driveAccess, token)
    },
    async deleteCredential(sctx, id) {
      if (id !== DRIVE_CREDENTIAL_ID || (await driveTokenOf(sctx)) === null) {
        throw new NotFound(`csv has no credential ${id}`)
      }
      await forgetDriveToken(sctx, driveAccess)
    },
  }
}

/** The csv source among the engine's sources (the drive OAuth routes need its token). */
export function csvSourceOf(sources: readonly Source[]): CsvSource {
  const csv = sources.find((s): s is CsvSource => s.type === 'csv')
  if (!csv) throw new Error('the csv source is not registered')
  return csv
}

function usesDrive(config: Config): boolean {
  return (
    config.csv.folders.some((f) => f.backend === 'drive') || config.csv.drive_client_id !== null
  )
}

async function state(sctx: SourceContext): Promise<SourceState> {
  const { config } = sctx.ctx
  const token = await driveTokenOf(sctx)
  const hasLocal = config.csv.folders.some((f) => f.backend === 'local')
  const hasDrive = config.csv.folders.some((f) => f.backend === 'drive')
  return {
    connected: hasLocal || (hasDrive && token !== null),
    credential: usesDrive(config)
      ? {
          kind: 'oauth',
          entries:
            token === null
              ? []
              : [{ id: DRIVE_CREDENTIAL_ID, label: 'Drive refresh token', from_config: false }],
        }
      : { kind: 'none' },
    config: [
      { key: 'csv.folders', value: config.csv.folders },
      { key: 'csv.drive_client_id', value: config.csv.drive_client_id },
      {
        key: 'csv.drive_client_secret',
        value: config.csv.drive_client_secret === null ? null : REDACTED,
      },
      { key: 'csv.drive_redirect_url', value: config.csv.drive_redirect_url },
    ],
  }
}

async function fetchCsv(sctx: SourceContext, driveAccess: DriveAccessToken): Promise<Batch | Skip> {
  const { ctx } = sctx
  const { plans, problems } = planFolders(ctx.config.csv.folders)
  const warnings = [...problems]
  const token = await driveTokenOf(sctx)
  const drive = token === null ? null : new DriveClient(sctx, driveAccess)
  const readable = plans.filter((plan) => {
    if (plan.folder.backend !== 'drive' || drive !== null) return true
    // SPEC 1.3 rule 4: a drive folder without a token is skipped.
    warnings.push(`folder ${JSON.stringify(plan.folder.name)}: drive is not connected; skipped`)
    return false
  })
  if (readable.length === 0) return { skip: warnings.join('; ') || 'no folder to read' }

  let skipped = 0
  async function* rows(): AsyncGenerator<IngestTransaction[]> {
    const unreadable: string[] = []
    for (const plan of readable) {
      const where = `folder ${JSON.stringify(plan.folder.name)}`
      let files: CsvFileRef[]
      try {
        files =
          plan.folder.backend === 'drive'
            ? await drive!.listCsvFiles(plan.folder.folder_id!)
            : await listLocalFiles(plan.folder.path!)
      } catch (error) {
        unreadable.push(`${where}: ${(error as Error).message}`)
        warnings.push(`${where}: ${(error as Error).message}; skipped`)
        ctx.log.warn(
          { source: 'csv', folder: plan.folder.name, err: (error as Error).message },
          'csv: folder skipped',
        )
        continue
      }
      for (const file of files) {
        const report: FileReport = { skipped: 0, examples: [] }
        try {
          yield* readFile(plan, file, await file.open(), report)
        } catch (error) {
          // SPEC 1.3 rule 3: a bad file is logged and skipped; the rest still import.
          const reason = error instanceof CsvFileError ? error.message : (error as Error).message
          warnings.push(`${where}: file ${JSON.stringify(file.name)} skipped: ${reason}`)
          ctx.log.warn(
            { source: 'csv', folder: plan.folder.name, file: file.name, err: reason },
            'csv: bad file skipped',
          )
        }
        if (report.notUtf8) {
          warnings.push(
            `${where}: file ${JSON.stringify(file.name)} is not UTF-8: bytes it could not read became U+FFFD (set mapping.encoding, for example "windows-1252")`,
          )
          ctx.log.warn(
            { source: 'csv', folder: plan.folder.name, file: file.name },
            'csv: file is not UTF-8',
          )
        }
        if (report.skipped > 0) {
          skipped += report.skipped
          warnings.push(
            `${where}: file ${JSON.stringify(file.name)}: ${report.skipped} row(s) skipped (${report.examples.join('; ')})`,
          )
        }
      }
    }
    // Like a failing address of the on-chain source (SPEC 1.2 rule 7): the source
    // fails only when no folder at all could be read.
    if (unreadable.length === readable.length) throw new Error(unreadable.join('; '))
  }

  return {
    organizations: [...new Map(readable.map((p) => [p.organization.id, p.organization])).values()],
    accounts: readable.map((p) => p.account),
    transactions: rows(),
    summary: () => ({ skipped, warnings }),
  }
}

function readFile(
  plan: FolderPlan,
  file: CsvFileRef,
  input: Readable,
  report: FileReport,
): AsyncGenerator<IngestTransaction[]> {
  if (file.size !== null && file.size >= WORKER_MIN_BYTES) {
    return readCsvRowsInWorker(input, {
      mapping: plan.folder.mapping,
      accountId: plan.account.id,
      report,
    })
  }
  const format = plan.folder.mapping.date_format
  return readCsvRows(input, {
    mapping: plan.folder.mapping,
    accountId: plan.account.id,
    // A parser per file: the guessing one remembers the layout the file uses.
    parseDate: format === null ? guessingParser() : layoutParser(format),
    report,
  })
}
