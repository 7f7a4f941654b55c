// The Edit Customer page's tab tables: a wide one scrolls sideways inside the tab.
import type { ReactNode } from 'react';

/** A wide table scrolls sideways inside the tab; the region takes the keyboard focus so it can be scrolled without a mouse. */
export function ScrollRegion({ label, children }: { label: string; children: ReactNode }) {
  return <div className="customer-table-scroll" role="region" aria-label={label} tabIndex={0}>{children}</div>;
}

