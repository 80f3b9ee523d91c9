import type { Role } from '../http/auth.js';
import { AppError } from '../http/errors.js';
import { openHeaders, sealHeaders, secretPlaces } from '../lib/secret-places.js';
import { openSecret, type Keyring } from '../lib/secrets.js';

/**
 * WEBHOOK step headers are secrets (an `Authorization` token, an API key of the receiver), and
 * MEMBERs do not manage secrets (only OWNER and ADMIN manage members and keys). So
 * (issue "Hardening" 10):
 * - every answer that carries a step (GET /workflows/:id, PATCH /workflows/:id, step create and
 *   change) shows a MEMBER each header value masked: `••••` and its last 4 characters when it is 12
 *   characters or longer, else `••••` alone; OWNER, ADMIN and secret-key callers see the values;
 * - a MEMBER may not change the config of a WEBHOOK step that has headers (403 FORBIDDEN): sending the
 *   masked values back would store the mask, and a new URL with the stored headers would hand the
 *   secret to whoever runs that URL. Renaming the step, deleting it, or creating a WEBHOOK step with
 *   headers of their own stay open to MEMBERs.
 */

/** Who is looking: the role of a session caller in the project; none for the secret key (ADMIN rights). */
export interface Viewer {
  role?: Role;
}

const MASK = '••••';

/** Whether `viewer` may read and change step secrets. */
export const seesSecrets = (viewer: Viewer): boolean => viewer.role !== 'MEMBER';

/** `value` as a MEMBER sees it. */
export const maskSecret = (value: string): string => (value.length >= 12 ? `${MASK}${value.slice(-4)}` : MASK);

type StepLike = { type: string; config: Record<string, unknown> };

const headersOf = (step: StepLike) =>
  step.type === 'WEBHOOK' ? (step.config.headers as Record<string, string> | undefined) : undefined;

/**
 * A step's config as stored: a WEBHOOK step's header values sealed (lib/secrets.ts), so that a
 * database dump does not hand out the tokens of customers' endpoints.
 */
export function sealStepConfig<C extends Record<string, unknown>>(ring: Keyring, type: string, config: C): C {
  const headers = headersOf({ type, config });
  return headers ? { ...config, headers: sealHeaders(ring, headers) } : config;
}

/**
 * A stored step's config with its secrets in clear, for running the step.
 * @throws as `openSecret` (lib/secrets.ts) when a header cannot be opened.
 */
export function openStepConfig<C extends Record<string, unknown>>(ring: Keyring, type: string, config: C): C {
  const headers = headersOf({ type, config });
  return headers ? { ...config, headers: openHeaders(ring, headers) } : config;
}

/**
 * The step as `viewer` may see it: a WEBHOOK step's header values opened, and masked for a MEMBER. A
 * value that cannot be opened (its key is not configured) shows as the mask alone.
 */
export function stepForViewer<S extends StepLike>(step: S, viewer: Viewer, ring: Keyring): S {
  const headers = headersOf(step);
  if (!headers) return step;
  const shown = Object.fromEntries(
    Object.entries(headers).map(([k, v]) => {
      let clear: string | null;
      try {
        clear = openSecret(ring, String(v), secretPlaces.stepHeader(k));
      } catch {
        clear = null;
      }
      return [k, clear === null ? MASK : seesSecrets(viewer) ? clear : maskSecret(clear)];
    }),
  );
  return { ...step, config: { ...step.config, headers: shown } };
}

/**
 * Refuses a MEMBER's change of the config of a WEBHOOK step that has headers.
 * @throws AppError 403 FORBIDDEN.
 */
export function assertMayChangeConfig(step: StepLike, viewer: Viewer): void {
  const headers = step.config.headers as Record<string, string> | undefined;
  if (step.type === 'WEBHOOK' && headers && Object.keys(headers).length && !seesSecrets(viewer)) {
    throw new AppError(
      'FORBIDDEN',
      'The headers of this WEBHOOK step are secrets: only an OWNER or ADMIN may change its config',
      {
        suggestion: 'Ask an OWNER or ADMIN of the project, or change only the step name.',
      },
    );
  }
}
