import { findBooking, type CoreStatement, type CoreTransaction } from './index';

const line = (patch: Partial<CoreTransaction>): CoreTransaction => ({
  transactionId: 'tx_1',
  bookingDate: '2025-03-10',
  amount: 500,
  currency: 'LYD',
  creditDebitIndicator: 'DEBIT',
  description: '',
  reference: null,
  ...patch,
});
const statement = (...transactions: CoreTransaction[]): CoreStatement => ({ iban: 'LY00', transactions });
const wanted = { reference: 'ops_1', amount: 500, currency: 'LYD' as const, direction: 'DEBIT' as const };

describe('findBooking', () => {
  it('is booked when a line of that direction carries the reference, as transaction id, or as a whole token of its description', () => {
    expect(findBooking(statement(line({ reference: 'ops_1' })), wanted)).toBe('booked');
    expect(findBooking(statement(line({ transactionId: 'ops_1' })), wanted)).toBe('booked');
    expect(findBooking(statement(line({ description: 'Payment ops_1 to shop' })), wanted)).toBe('booked');
    expect(findBooking(statement(line({ description: 'ref:ops_1' })), wanted)).toBe('booked');
    expect(findBooking(statement(line({ description: 'ops_1' })), wanted)).toBe('booked');
    // whatever the amount the core booked: the reference is the booking
    expect(findBooking(statement(line({ reference: 'ops_1', amount: 499 })), wanted)).toBe('booked');
  });

  it('does not take a longer reference or the reversal of the same reference for it', () => {
    const others = statement(
      line({ description: 'Reversal ops_1:reversal' }),
      line({ description: 'Payment ops_12' }),
      line({ description: 'xops_1' }),
      line({ reference: 'ops_1:reversal' }),
    );
    expect(findBooking(others, wanted)).toBe('absent');
    expect(
      findBooking(statement(line({ description: 'Reversal ops_1:reversal' })), {
        ...wanted,
        reference: 'ops_1:reversal',
      }),
    ).toBe('booked');
  });

  it('only counts lines of the wanted direction', () => {
    expect(findBooking(statement(line({ reference: 'ops_1', creditDebitIndicator: 'CREDIT' })), wanted)).toBe('absent');
  });

  it('is absent for an empty statement or lines that are clearly other movements', () => {
    expect(findBooking(statement(), wanted)).toBe('absent');
    expect(
      findBooking(
        statement(
          line({ reference: 'ops_2' }),
          line({ transactionId: 'tx_9' }), // same amount but the core named it
          line({ transactionId: null, description: 'Payment ops_other' }), // names another movement
          line({ transactionId: null, amount: 501 }),
          line({ transactionId: null, currency: 'USD' }),
          line({ transactionId: null, creditDebitIndicator: 'CREDIT' }),
        ),
        wanted,
      ),
    ).toBe('absent');
  });

  it('is undecidable when a line of the same amount, currency and direction carries no reference information', () => {
    expect(findBooking(statement(line({ transactionId: null })), wanted)).toBe('undecidable');
    expect(findBooking(statement(line({ transactionId: null, description: 'Card payment 12/03' })), wanted)).toBe(
      'undecidable',
    );
    // a line naming the reference still wins
    expect(findBooking(statement(line({ transactionId: null }), line({ reference: 'ops_1' })), wanted)).toBe('booked');
  });

  it('treats regex characters in the reference literally', () => {
    const settlement = { ...wanted, reference: 'stl_a.b:bank1:LYD', direction: 'CREDIT' as const };
    expect(
      findBooking(
        statement(line({ creditDebitIndicator: 'CREDIT', description: 'Settlement stl_a.b:bank1:LYD' })),
        settlement,
      ),
    ).toBe('booked');
    expect(
      findBooking(
        statement(line({ creditDebitIndicator: 'CREDIT', description: 'Settlement stl_aXb:bank1:LYD' })),
        settlement,
      ),
    ).toBe('absent');
  });
});
