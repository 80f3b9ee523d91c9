/**
 * The editor's calls. `/email-style` and `/templates/gallery` are being added to the server (issue 38)
 * and are not in the generated types yet: they go through {@link call} with local types that mirror
 * the contract; once `npm run gen:api` has them, switch to `api.GET(…)` with `unwrap`.
 */
import { useQuery } from '@tanstack/react-query';
import { api, inProject, unwrap } from '../../api/client';
import { apiErrorFrom, networkError } from '../../api/errors';
import { projectKeys } from '../projects/api';
import type { BlocksDocument, BlocksStyle } from './types';

/** A JSON call to a route the generated client does not know yet; throws ApiError like `unwrap`. */
async function call<T>(method: 'GET' | 'PUT', path: string, projectId: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await globalThis.fetch(path, {
      method,
      credentials: 'same-origin',
      headers: { ...inProject(projectId), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw networkError(err);
  }
  const parsed: unknown = await res.json().catch(() => undefined);
  if (!res.ok) throw apiErrorFrom(res, parsed);
  return parsed as T;
}

export const emailStyleKey = (projectId: string) => [...projectKeys.one(projectId), 'email-style'] as const;

/** `GET /email-style`: the project's global style, which new documents start from. */
export function useEmailStyle(projectId: string) {
  return useQuery({
    queryKey: emailStyleKey(projectId),
    queryFn: () => call<BlocksStyle>('GET', '/email-style', projectId),
    staleTime: 60_000,
    retry: false,
  });
}

/** `PUT /email-style`: saves a style as the project's (answers it with the defaults applied). */
export const saveEmailStyle = (projectId: string, style: BlocksStyle) =>
  call<BlocksStyle>('PUT', '/email-style', projectId, style);

/** One starter template of `GET /templates/gallery`. */
export interface GalleryTemplate {
  key: string;
  name: string;
  description: string;
  type: 'TRANSACTIONAL' | 'MARKETING';
  subject: string;
  preheader: string | null;
  blocks: BlocksDocument;
}

/** `GET /templates/gallery`: the starter templates, in `blocks` format. */
export function useGallery(projectId: string) {
  return useQuery({
    queryKey: [...projectKeys.one(projectId), 'template-gallery'] as const,
    queryFn: () => call<{ data: GalleryTemplate[] }>('GET', '/templates/gallery', projectId),
    staleTime: Infinity,
  });
}

/** `POST /uploads/image` (multipart field `file`, ≤ 5 MB): answers the image's public URL. */
export function uploadImage(projectId: string, file: File) {
  const form = new FormData();
  form.append('file', file, file.name);
  // The route takes multipart, which the generated types cannot describe: the form goes as it is.
  return unwrap(
    api.POST('/uploads/image', {
      body: form as never,
      bodySerializer: (b: unknown) => b as FormData,
      headers: inProject(projectId),
    }),
  );
}
