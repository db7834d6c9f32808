// One explorer transaction record, as seen from one watched address, turned into
// a ledger row (SPEC 1.2 rules 2-5). Amounts are computed on wei in BigInt and
// written as exact ETH text, never through a float.
import { AMOUNT_MAX_LENGTH, formatUnits } from '../../decimal.js'
import type { IngestTransaction } from '../../ledger/ingest.js'
import { parseInstant } from '../../ledger/time.js'

/** Wei per ETH is 10^18. */
export const WEI_DECIMALS = 18

/** The fields of a `txlist` record that the ledger uses (all strings in both dialects). */
export interface ExplorerTransaction {
  hash: string
  blockNumber: string
  timeStamp: string
  from: string
  /** Empty for a contract creation, whose new address is `contractAddress`. */
  to: string
  contractAddress?: string
  value: string
  gasUsed: string
  gasPrice: string
  /** "1" for a reverted call (it moves no value but still costs gas). */
  isError?: string
  /** "0" for a failed receipt (post-Byzantium); the same meaning as isError "1". */
  txreceipt_status?: string
}

export function accountIdOf(address: string): string {
  return `ethereum:${address}`
}

/** SPEC 1.2 rule 2: one row per watched address, so the address is part of the id. */
export function transactionIdOf(address: string, hash: string): string {
  return `ethereum:${address}:${hash.toLowerCase()}`
}

/**
 * `wei` as exact ETH text. An amount is at most 64 characters wherever it comes
 * from (a sync writes no amount a client could not): ETH's whole supply takes
 * 28. Longer is a RangeError starting with `subject` ("the balance comes to").
 */
export function ethAmountOf(wei: bigint, subject: string): string {
  const amount = formatUnits(wei, WEI_DECIMALS)
  if (amount.length > AMOUNT_MAX_LENGTH) {
    throw new RangeError(`${subject} more than ${AMOUNT_MAX_LENGTH} characters of ETH`)
  }
  return amount
}

const UNSIGNED = /^\d+$/
const HASH = /^0x[0-9a-fA-F]{64}$/

function wei(value: unknown, field: string): bigint {
  if (typeof value !== 'string' || !UNSIGNED.test(value)) {
    throw new RangeError(`${field} is not an unsigned integer`)
  }
  return BigInt(value)
}

function lower(value: unknown): string {
  return typeof value === 'string' ? value.toLowerCase() : ''
}

/**
 * The ledger row of `record` for the watched (lower-case) `address`. Throws a
 * RangeError naming the field when the record is malformed; returns null for a
 * record that does not touch the address (an explorer should never send one).
 */
export function ledgerRowOf(
  address: string,
  record: ExplorerTransaction,
): IngestTransaction | null {
  if (typeof record.hash !== 'string' || !HASH.test(record.hash)) {
    throw new RangeError('hash is not a transaction hash')
  }
  const date =
    typeof record.timeStamp === 'string' && UNSIGNED.test(record.timeStamp)
      ? parseInstant(record.timeStamp)
      : null
  if (date === null) throw new RangeError('timeStamp is not unix seconds')
  const from = lower(record.from)
  // A contract creation has no `to`; the value goes to the new contract.
  const to = lower(record.to) || lower(record.contractAddress)
  const isSender = from === address
  const isRecipient = to === address
  if (!isSender && !isRecipient) return null

  // SPEC 1.2 rule 3: a reverted transaction moves no value, yet its sender pays gas.
  const reverted = record.isError === '1' || record.txreceipt_status === '0'
  const value = reverted ? 0n : wei(record.value, 'value')
  const gas = isSender ? wei(record.gasUsed, 'gasUsed') * wei(record.gasPrice, 'gasPrice') : 0n
  const net = (isRecipient ? value : 0n) - (isSender ? value : 0n) - gas

  const amount = ethAmountOf(net, 'value and gas come to')

  // SPEC 1.2 rule 5; a self-send is a send to oneself (it nets to minus the gas).
  return {
    id: transactionIdOf(address, record.hash),
    account_id: accountIdOf(address),
    amount,
    date,
    description: isSender ? 'Sent ETH' : 'Received ETH',
    payee: isSender ? to || null : from || null,
    memo: reverted ? 'reverted' : null,
    pending: false,
  }
}
