// GET /transactions/summary and the MCP tool summarize_transactions (issue 13,
// item 9): exact sums and counts of transactions per period, optionally per
// account or per value of one label key, per currency, filtered by the search
// language and a date range. The shapes for REST, MCP and OpenAPI.
import Type, { type Static } from 'typebox'
import { DecimalText, ErrorResponses } from './common.js'
import { TransactionSearchQuery } from './transactions.js'

export const SummaryPeriod = Type.Union(
  [Type.Literal('day'), Type.Literal('week'), Type.Literal('month'), Type.Literal('year')],
  { description: 'Length of a period; weeks start on Monday (ISO 8601). Default month.' },
)

export const SummaryGroupBy = Type.Union([Type.Literal('account'), Type.Literal('label')], {
  description: 'Split each period by account, or by the value of label_key.',
})

const { q, since, until, label_key, label_value } = TransactionSearchQuery.properties

export const SummaryQuery = Type.Object({
  period: Type.Optional(SummaryPeriod),
  group_by: Type.Optional(SummaryGroupBy),
  by_label: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'The label key whose values split the periods (read trimmed and lower-cased, as label keys are stored); required with group_by=label, ignored otherwise.',
    }),
  ),
  q,
  since,
  until,
  label_key,
  label_value,
})
export type SummaryInput = Static<typeof SummaryQuery>

export const SummaryGroup = Type.Object({
  period: Type.String({
    description: 'The period: 2024, 2024-05, 2024-W05 or 2024-05-17.',
    examples: ['2024-05'],
  }),
  start: Type.String({ description: 'First day of the period, YYYY-MM-DD.' }),
  key: Type.Union([Type.String(), Type.Null()], {
    description:
      'The account id (group_by=account) or the label value (group_by=label; null for transactions without that label); null when not grouped.',
  }),
  currency: Type.String({ description: "The account's currency." }),
  count: Type.Integer(),
  sum: DecimalText,
  inflow: { ...DecimalText, description: 'Sum of the positive amounts.' },
  outflow: { ...DecimalText, description: 'Sum of the negative amounts (zero or negative).' },
})

export const SummaryResult = Type.Object({
  query: Type.String(),
  period: SummaryPeriod,
  group_by: Type.Union([SummaryGroupBy, Type.Null()]),
  by_label: Type.Union([Type.String(), Type.Null()]),
  groups: Type.Array(SummaryGroup, {
    description: 'Ordered by start, then key (null first), then currency.',
  }),
})
export type SummaryJson = Static<typeof SummaryResult>

export const SummaryRoutes = {
  summary: {
    tags: ['transactions'],
    summary: 'Exact sums and counts per period (and account or label value), per currency',
    querystring: SummaryQuery,
    response: { 200: SummaryResult, ...ErrorResponses },
  },
}
