import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { noContent, replies } from '../../http/responses.js';
import { deviceUserId } from '../device.js';
import {
  codeBody,
  idParams,
  passkeyLoginBody,
  passkeyOptionsOut,
  passkeyOut,
  recoveryCodesOut,
  registerPasskeyBody,
  renamePasskeyBody,
  totpStartOut,
  totpStatusOut,
  verifyLoginBody,
} from './factors.schema.js';
import {
  authenticationOptions,
  listPasskeys,
  passkeySignIn,
  registerPasskey,
  registrationOptions,
  removePasskey,
  renamePasskey,
} from './passkeys.js';
import { verifySecondFactor, type SecondStepAnswer } from './second-factor.js';
import { completeSignIn } from './sign-in.js';
import { confirmTotp, disableTotp, regenerateRecoveryCodes, startTotp, totpStatus } from './totp.service.js';
import { userOut } from '../users.schema.js';
import { me, toUserOut } from '../users.service.js';

/**
 * Two-factor sign-in (TOTP, recovery codes) and passkeys: the account's own set-up under
 * `/users/@me/*`, and the sign-in steps under `/auth/*`.
 */
export async function factorsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['users'];
  const session = { auth: 'session' as const, throttle: 'ip' as const };

  r.get(
    '/users/@me/totp',
    {
      config: { auth: 'session' },
      schema: { tags, summary: 'Whether two-factor sign-in is on', response: replies({ 200: totpStatusOut }) },
    },
    async (req) => totpStatus(deps, req.auth.userId!),
  );

  r.post(
    '/users/@me/totp',
    {
      config: session,
      schema: {
        tags,
        summary: 'Start two-factor set-up: a new TOTP secret (RFC 6238), in force once confirmed with a code',
        response: replies({ 200: totpStartOut }),
      },
    },
    async (req) => startTotp(deps, req.auth.userId!),
  );

  r.post(
    '/users/@me/totp/confirm',
    {
      config: session,
      schema: {
        tags,
        summary: 'Confirm two-factor set-up with a current code: turns it on and answers ten recovery codes once',
        body: codeBody,
        response: replies({ 200: recoveryCodesOut }),
      },
    },
    async (req) => ({
      recoveryCodes: await confirmTotp(deps, req.auth.userId!, req.auth.sessionId!, req.body.code),
    }),
  );

  r.delete(
    '/users/@me/totp',
    {
      config: session,
      schema: {
        tags,
        summary: 'Turn two-factor sign-in off, given a current code or a recovery code',
        body: codeBody,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await disableTotp(deps, req.auth.userId!, req.body.code);
      return reply.code(204).send();
    },
  );

  r.post(
    '/users/@me/recovery-codes',
    {
      config: session,
      schema: {
        tags,
        summary: 'Replace the recovery codes, given a current code or a recovery code; the new ones are shown once',
        body: codeBody,
        response: replies({ 200: recoveryCodesOut }),
      },
    },
    async (req) => ({ recoveryCodes: await regenerateRecoveryCodes(deps, req.auth.userId!, req.body.code) }),
  );

  r.post(
    '/auth/login/verify',
    {
      config: { auth: 'none', throttle: 'ip' },
      schema: {
        tags: ['auth'],
        summary:
          "Second step of a sign-in: the first step's token with a TOTP code, a recovery code or a passkey response; sets the session cookie",
        body: verifyLoginBody,
        response: replies({ 200: userOut }),
      },
    },
    async (req, reply) => {
      const { token, ...rest } = req.body;
      const done = await verifySecondFactor(deps, token, rest as SecondStepAnswer, {
        throttle: app.loginThrottle,
        deviceUserId: await deviceUserId(deps, req),
      });
      await completeSignIn(deps, req, reply, done.user.id, done.method);
      return toUserOut(done.user);
    },
  );

  r.get(
    '/users/@me/passkeys',
    {
      config: { auth: 'session' },
      schema: { tags, summary: "The account's passkeys", response: replies({ 200: z.array(passkeyOut) }) },
    },
    async (req) => listPasskeys(deps, req.auth.userId!),
  );

  r.post(
    '/users/@me/passkeys/options',
    {
      config: session,
      schema: {
        tags,
        summary: 'Options for navigator.credentials.create() to register a passkey (5 minutes, single use)',
        response: replies({ 200: z.looseObject({}) }),
      },
    },
    async (req) => ({ ...(await registrationOptions(deps, await me(deps, req.auth.userId!))) }),
  );

  r.post(
    '/users/@me/passkeys',
    {
      config: session,
      schema: {
        tags,
        summary: 'Register a passkey: its name and the response to the registration options',
        body: registerPasskeyBody,
        response: replies({ 201: passkeyOut }),
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(
          await registerPasskey(
            deps,
            req.auth.userId!,
            req.body.name,
            req.body.response as unknown as RegistrationResponseJSON,
          ),
        ),
  );

  r.patch(
    '/users/@me/passkeys/:id',
    {
      config: { auth: 'session' },
      schema: {
        tags,
        summary: 'Rename a passkey',
        params: idParams,
        body: renamePasskeyBody,
        response: replies({ 200: passkeyOut }),
      },
    },
    async (req) => renamePasskey(deps, req.auth.userId!, req.params.id, req.body.name),
  );

  r.delete(
    '/users/@me/passkeys/:id',
    {
      config: { auth: 'session' },
      schema: { tags, summary: 'Remove a passkey', params: idParams, response: replies({ 204: noContent }) },
    },
    async (req, reply) => {
      await removePasskey(deps, req.auth.userId!, req.params.id);
      return reply.code(204).send();
    },
  );

  r.post(
    '/auth/passkey/options',
    {
      config: { auth: 'none', throttle: 'ip' },
      schema: {
        tags: ['auth'],
        summary: 'Start a passkey sign-in: options for navigator.credentials.get() and their token',
        response: replies({ 200: passkeyOptionsOut }),
      },
    },
    async () => {
      const { token, options } = await authenticationOptions(deps);
      return { token, options: { ...options } };
    },
  );

  r.post(
    '/auth/passkey',
    {
      config: { auth: 'none', throttle: 'ip' },
      schema: {
        tags: ['auth'],
        summary:
          'Sign in with a passkey (no password): the token of the options and the response; sets the session cookie',
        body: passkeyLoginBody,
        response: replies({ 200: userOut }),
      },
    },
    async (req, reply) => {
      const userId = await passkeySignIn(
        deps,
        req.body.token,
        req.body.response as unknown as AuthenticationResponseJSON,
      );
      await completeSignIn(deps, req, reply, userId, 'passkey');
      return toUserOut(await me(deps, userId));
    },
  );
}
