/** The editor's calls: the project's email style, the starter gallery, image uploads. */
import { useQuery } from '@tanstack/react-query';
import { api, inProject, unwrap } from '../../api/client';
import { projectKeys } from '../projects/api';
import type { BlocksDocument, BlocksStyle } from './types';

export const emailStyleKey = (projectId: string) => [...projectKeys.one(projectId), 'email-style'] as const;

/** `GET /email-style`: the project's global style, which new documents start from. */
export function useEmailStyle(projectId: string) {
  return useQuery({
    queryKey: emailStyleKey(projectId),
    queryFn: () => unwrap(api.GET('/email-style', { headers: inProject(projectId) })),
    staleTime: 60_000,
    retry: false,
  });
}

/** `PUT /email-style`: saves a style as the project's (answers it with the defaults applied). */
export const saveEmailStyle = (projectId: string, style: BlocksStyle) =>
  unwrap(api.PUT('/email-style', { body: style, headers: inProject(projectId) }));

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
    queryFn: () => unwrap(api.GET('/templates/gallery', { headers: inProject(projectId) })),
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
