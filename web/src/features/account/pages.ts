/** The account's own screens (password, address, sessions), one lazily loaded chunk. */
export { AccountPage } from './AccountPage';
export { ConfirmEmailPage } from './ConfirmEmailPage';
export { SecurityPage } from './SecurityPage';
