/** A cm_keywords row's fields as the tools store them (the store refuses a row it could not read back). */
export const keywordFields = (
  keyword: string,
  extra: { volume?: number | null; data_source?: 'caller' | 'sandbox' } = {},
) => ({
  keyword,
  locale: 'US/en',
  volume: null,
  cpc_usd: null,
  competition: null,
  intent: null,
  is_idea: false,
  page_id: null,
  checked_at: null,
  data_source: 'caller',
  ...extra,
});
