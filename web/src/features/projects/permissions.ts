import type { Role } from '../../api/types';

/** What the current member may do in a project. */
export interface Permissions {
  role: Role;
  /** Rename, tracking mode (OWNER, ADMIN). */
  editProject: boolean;
  /** Rotate the API keys (OWNER, ADMIN). */
  rotateKeys: boolean;
  /** Invite, change roles, remove others (OWNER, ADMIN; only an OWNER touches OWNERs). */
  manageMembers: boolean;
  /** Grant or take the OWNER role. */
  manageOwners: boolean;
  /** Delete or reset the project, change billing limits (OWNER). */
  ownerOnly: boolean;
}

/**
 * The server's role rules (OWNER and ADMIN manage members and keys; only an OWNER deletes, resets or
 * changes billing), so the screens hide or disable what would only earn a 403. The server still
 * decides: its 403 is shown if the two ever disagree.
 */
export function permissionsFor(role: Role): Permissions {
  const admin = role === 'OWNER' || role === 'ADMIN';
  return {
    role,
    editProject: admin,
    rotateKeys: admin,
    manageMembers: admin,
    manageOwners: role === 'OWNER',
    ownerOnly: role === 'OWNER',
  };
}

/** The sentence a disabled control shows as its tooltip. */
export const needsRole = (roles: string) => `Only ${roles} of this project can do this`;
