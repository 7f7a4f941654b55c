// Perfect Money's SCI has no server API the app calls: the customer's browser posts the entry form
// to https://perfectmoney.is/api/step1.asp. Under MOCKS=1 that form goes to the app's mock SCI
// (/payments/mock/perfectmoney/sci, web/test/mocks/checkouts.ts), which keeps each entry form here.
export interface MockPerfectMoneyPayment {
  id: string;
  /** the entry form's fields, as the browser posted them */
  fields: Record<string, string>;
  batch: string | null;
}

export const perfectmoneyMock = {
  payments: new Map<string, MockPerfectMoneyPayment>(),
  batches: 0,
  reset() {
    this.payments.clear();
    this.batches = 0;
  },
};
