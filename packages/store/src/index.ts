import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LinkStore } from './links';
import { PageStore } from './pages';
import { SiteStore } from './sites';

export * from './client';
export * from './table';
export type { Site, NewSite } from './sites';
export type { StoredPage, PutPage, PutResult, PageListing, LinkTarget, CurrentLiveState } from './pages';
export type { PageRef, RelinkOutcome } from './links';
export { SiteStore, PageStore, LinkStore };

export interface Store {
  sites: SiteStore;
  pages: PageStore;
  links: LinkStore;
}

export function createStore(db: DynamoDBDocumentClient, tableName: string): Store {
  const links = new LinkStore(db, tableName);
  return { sites: new SiteStore(db, tableName), pages: new PageStore(db, tableName, links), links };
}
