import type { S3Client } from '@aws-sdk/client-s3';

/** Size of each part of a multipart upload: S3's minimum is 5 MiB (all parts but the last). */
export const PART_BYTES = 8 * 1024 * 1024;

/** What {@link putMultipart} needs of the S3 storage: the client, the SDK's commands, where to write. */
export interface MultipartTarget {
  client: S3Client;
  sdk: typeof import('@aws-sdk/client-s3');
  bucket: string;
  key: string;
  contentType: string;
}

/**
 * Writes `body` to S3 holding at most one part ({@link PART_BYTES}) in memory: a body that ends within
 * the first part is one PutObject; a longer one a multipart upload (CreateMultipartUpload, UploadPart
 * per 8 MiB, CompleteMultipartUpload), aborted when anything fails so no parts are left behind.
 * @returns the number of bytes written. @throws whatever S3 or `body` throws (after the abort).
 */
export async function putMultipart(t: MultipartTarget, body: AsyncIterable<Buffer | string>): Promise<number> {
  const { client, sdk, bucket, key, contentType } = t;
  let chunks: Buffer[] = [];
  let held = 0;
  let total = 0;
  let uploadId: string | undefined;
  const parts: { ETag?: string; PartNumber: number }[] = [];
  const flush = async () => {
    const part = Buffer.concat(chunks, held);
    chunks = [];
    held = 0;
    uploadId ??= (
      await client.send(new sdk.CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: contentType }))
    ).UploadId;
    const PartNumber = parts.length + 1;
    const out = await client.send(
      new sdk.UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber, Body: part }),
    );
    parts.push({ ETag: out.ETag, PartNumber });
  };
  try {
    for await (const chunk of body) {
      const b = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      chunks.push(b);
      held += b.length;
      total += b.length;
      if (held >= PART_BYTES) await flush();
    }
    if (!uploadId) {
      await client.send(
        new sdk.PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: Buffer.concat(chunks, held),
          ContentType: contentType,
        }),
      );
      return total;
    }
    if (held) await flush();
    await client.send(
      new sdk.CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: parts },
      }),
    );
    return total;
  } catch (err) {
    if (uploadId) {
      await client
        .send(new sdk.AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }))
        .catch(() => undefined);
    }
    throw err;
  }
}
