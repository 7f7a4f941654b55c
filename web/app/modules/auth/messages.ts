// Messages of the visitor flows (i18n keys), shared by the server and the pages.
export const MESSAGES = {
  invalidCredentials: 'Invalid Credentials',
  inactive: 'Your account is inactive. Please contact support.',
  unverified: 'Please verify your email address before signing in.',
  /** the answer to 'Resend verification', whether or not the address has an account (nothing is revealed) */
  verificationResent: 'If this address has an account waiting for verification, a new link is on its way.',
  ipDenied: 'Sign-in is not allowed from this IP address.',
  captcha: 'Please complete the captcha.',
  emailTaken: 'This email is already registered.',
  promoInvalid: 'Invalid promo code',
  resetInvalid: 'This reset link is invalid or has expired.',
  resetUsed: 'This reset link has already been used.',
  resetExpired: 'This reset link has expired.',
  verifyInvalid: 'This verification link is invalid or has expired.',
  somethingWrong: 'Something went wrong',
  invalidCode: 'The code is not valid or was already used.',
  challengeExpired: 'Your sign-in has expired. Please sign in again.',
} as const;

// The answers of /security (docs/specs.md#security-and-two-factor-sign-in).
export const SECURITY_TOASTS = {
  passwordChanged: 'Password updated successfully',
  enrolStarted: 'Scan the QR code with your authenticator app',
  enrolCancelled: 'Two-factor set-up cancelled',
  enabled: 'Two-factor sign-in is on',
  disabled: 'Two-factor sign-in is off',
} as const;
