import * as z from 'zod/mini';
import { SiteRootParams } from './pages';

/** The path parameters of a one-segment file at a site's own domain (its IndexNow key file is `<key>.txt`). */
export const DomainFileParams = z.extend(SiteRootParams, { file: z.string().check(z.maxLength(200)) });
