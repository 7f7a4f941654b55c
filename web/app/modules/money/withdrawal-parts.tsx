// Pieces the customer's and the staff's withdrawal pages share: the status chip, the bank
// details, the method's name.
import { useTranslation } from 'react-i18next';
import type { BankDetails } from './money.server.ts';
import type { WithdrawalStatus } from './withdrawals.server.ts';

const STATUS_LABEL: Record<WithdrawalStatus, string> = { pending: 'Pending', approved: 'Approved', declined: 'Declined' };

/** Pending (amber), approved (green), declined (red); staff also see 'Awaiting second approval' (four-eyes). */
export function WithdrawalStatusChip({ status, awaitingSecond = false }: { status: WithdrawalStatus; awaitingSecond?: boolean }) {
  const { t } = useTranslation();
  if (status === 'pending' && awaitingSecond) return <span className="chip chip-pending">{t('Awaiting second approval')}</span>;
  return <span className={`chip chip-${status}`}>{t(STATUS_LABEL[status])}</span>;
}

/** The withdrawal method's name: bank transfers today. */
export function useMethodLabel() {
  const { t } = useTranslation();
  return (gateway: string) => (gateway === 'bank' ? t('Bank Transfer') : gateway);
}

/** Where the money goes: bank name, account name, account number, SWIFT, country. */
export function BankDetailsList({ bank }: { bank: BankDetails }) {
  const { t } = useTranslation();
  const items: [string, string][] = [
    [t('Bank name'), bank.bankName], [t('A/C name'), bank.accountName], [t('A/C no'), bank.accountNumber],
    [t('SWIFT'), bank.swiftCode], [t('Country'), bank.bankCountry],
  ];
  return (
    <dl className="bank-details">
      {items.map(([k, v]) => (
        <div key={k}><dt>{k}</dt><dd>{v || '—'}</dd></div>
      ))}
    </dl>
  );
}
