import * as z from 'zod/mini';
import { named } from '../common';
import { STORED_ROW_SHAPES } from '../cm-tables';

/* A cm_keywords row as results carry it: get_keywords' keywords and serp_landscape's ideas. */

export const KeywordRowSchema = named(z.object(STORED_ROW_SHAPES.cm_keywords), { id: 'KeywordRow' });
