import { OutboxEvent } from '@gateway/events';
import { Credential } from '@gateway/vault';
import { AuditEntry } from '@gateway/audit';
import { ConsentAccountEntity } from './account/consent-account.entity';
import { ConsentEntity } from './consent/consent.entity';
import { OrderIdempotencyKeyEntity } from './payment-order/order-idempotency';
import { PaymentOrderEntity } from './payment-order/payment-order.entity';
import { PushedRequestEntity } from './par/pushed-request.entity';
import { TppEntity } from './tpp/tpp.entity';
import { VrpConsentTermsEntity } from './vrp/vrp-consent-terms.entity';
import { VrpPaymentEntity } from './vrp/vrp-payment.entity';

/** Every entity open-banking's ORM maps: the service and its test kit open the same ones. */
export const OPEN_BANKING_ENTITIES = [
  TppEntity,
  ConsentEntity,
  ConsentAccountEntity,
  PaymentOrderEntity,
  OrderIdempotencyKeyEntity,
  PushedRequestEntity,
  VrpConsentTermsEntity,
  VrpPaymentEntity,
  OutboxEvent,
  Credential,
  AuditEntry,
];
