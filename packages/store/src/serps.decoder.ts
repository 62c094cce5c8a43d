import { SerpRow } from '@cm/contract';
import { decodeItem } from './decode';

/* A stored SERP competition row: the contract's SerpRow beside its key. */

export const decodeSerpRow = (item: Record<string, unknown>): SerpRow => decodeItem('SERP row', SerpRow, item);
