import { promoCodeAction, promoCodeLoader } from '~/modules/crm-config/promo-code.server.ts';
import { PromoCodePage } from '~/modules/crm-config/promo-code-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/promo-code');

// /admin/promo-code — Promo Code (roles 1, 2, 4, 5, 6 from the permission map): modules/crm-config.
export const loader = promoCodeLoader;
export const action = promoCodeAction;

export default function Page() {
  return <PromoCodePage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
