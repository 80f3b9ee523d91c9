import type { Config } from '../config.js';
import { diskStorage, s3Storage, type Storage } from '../uploads/storage.js';

/**
 * Where export files live: the S3 bucket of uploads when `S3_BUCKET` is set (keys under `exports/`,
 * never public: Pigeon streams them to a signed link), else `DATA_DIR/exports/`, which no route serves
 * except the signed download.
 */
export function exportStorage(config: Config): Storage {
  return config.S3_BUCKET ? s3Storage(config) : diskStorage(config, 'exports');
}

/** The storage key of an export's file: `exports/<projectId>/<exportId>.<format>`. */
export const exportKey = (projectId: string, id: string, format: string): string =>
  `exports/${projectId}/${id}.${format}`;
