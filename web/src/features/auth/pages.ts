/** The signed-out pages, one lazily loaded chunk. */
export { ForgotPasswordPage } from './ForgotPasswordPage';
export { LoginPage } from './LoginPage';
export { ResetPasswordPage } from './ResetPasswordPage';
export { SignupPage } from './SignupPage';
export { VerifyEmailPage } from './VerifyEmailPage';
