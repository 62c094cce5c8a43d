import type { Api } from './api';
import type { CompetitorRow } from './types';

/** The active competitors, whose colours and names every view uses. */
export const loadCompetitors = (api: Api): Promise<CompetitorRow[]> =>
  api.rows<CompetitorRow>('cm_competitors', { active: true });
