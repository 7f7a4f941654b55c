// Messages of the visitor flows (i18n keys), shared by the server and the pages.
export const MESSAGES = {
  invalidCredentials: 'Invalid Credentials',
  inactive: 'Your account is inactive. Please contact support.',
  unverified: 'Please verify your email address before signing in.',
  ipDenied: 'Sign-in is not allowed from this IP address.',
  captcha: 'Please complete the captcha.',
  emailTaken: 'This email is already registered.',
  promoInvalid: 'Invalid promo code',
  resetInvalid: 'This reset link is invalid or has expired.',
  verifyInvalid: 'This verification link is invalid or has expired.',
  somethingWrong: 'Something went wrong',
} as const;
