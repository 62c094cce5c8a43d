import type { Api } from './api';
import { isCompetitorRow } from './replies';
import type { CompetitorRow } from './types';

/** The active competitors, whose colours and names every view uses. */
export const loadCompetitors = (api: Api): Promise<CompetitorRow[]> =>
  api.rows('cm_competitors', isCompetitorRow, { active: true });
