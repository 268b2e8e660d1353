import { OperationLabels } from './operation-labels';

describe('OperationLabels', () => {
  it('keeps well-formed names up to the limit, then folds new ones into "other"', () => {
    const labels = new OperationLabels(2, 1);
    expect(labels.label('CreatePaymentSession')).toBe('CreatePaymentSession');
    expect(labels.label('GetPaymentSession')).toBe('GetPaymentSession');
    expect(labels.label('ListPaymentSessions')).toBe('other');
    expect(labels.label('CreatePaymentSession')).toBe('CreatePaymentSession');
  });

  it('names a request without an operation name "anonymous" and folds what is not a GraphQL name', () => {
    const labels = new OperationLabels();
    expect(labels.label(undefined)).toBe('anonymous');
    expect(labels.label('')).toBe('anonymous');
    expect(labels.label('drop table;')).toBe('other');
    expect(labels.label('x'.repeat(65))).toBe('other');
  });

  it('lets unauthenticated callers add only their own allowance, and use any known name', () => {
    const labels = new OperationLabels(10, 2);
    expect(labels.label('Known', true)).toBe('Known');
    expect(labels.label('AuthorizeCheckout', false)).toBe('AuthorizeCheckout');
    expect(labels.label('CheckoutPage', false)).toBe('CheckoutPage');
    expect(labels.label('Flood1', false)).toBe('other');
    expect(labels.label('Known', false)).toBe('Known');
    expect(labels.label('Another', true)).toBe('Another');
  });
});
