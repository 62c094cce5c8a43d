import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PageStore } from './pages';
import { SiteStore } from './sites';

export * from './client';
export * from './table';
export type { Site, NewSite } from './sites';
export type { StoredPage, PutPage, PageListing, LinkTarget } from './pages';
export { SiteStore, PageStore };

export interface Store {
  sites: SiteStore;
  pages: PageStore;
}

export function createStore(db: DynamoDBDocumentClient, tableName: string): Store {
  return { sites: new SiteStore(db, tableName), pages: new PageStore(db, tableName) };
}
