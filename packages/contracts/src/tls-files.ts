import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { KafkaTls } from './connection-settings.ts';
import { HookstreamError } from './hookstream-error.ts';

/** Reads a setting's file as UTF-8; injected in tests. */
export type FileReader = (path: string) => string;

const readUtf8: FileReader = (path) => readFileSync(path, 'utf8');
/** A PEM bundle larger than this is not a certificate file. */
const MAX_PEM_BYTES = 1024 * 1024;

function badConfig(message: string): HookstreamError<'BAD_CONFIG'> {
  return new HookstreamError('BAD_CONFIG', message, false);
}

export function readSettingFile(variable: string, path: string, read: FileReader = readUtf8): string {
  let text: string;
  try {
    text = read(path);
  } catch (err) {
    throw badConfig(`${variable}: cannot read ${path}: ${(err as Error).message}`);
  }
  if (text.length > MAX_PEM_BYTES) throw badConfig(`${variable}: ${path} is larger than 1 MiB`);
  return text;
}

function certificate(variable: string, pem: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch (err) {
    throw badConfig(`${variable}: not a PEM certificate (${(err as Error).message})`);
  }
}

/** A certificate outside its validity would only fail later, at the broker, as a closed socket. */
function checkValidity(variable: string, cert: X509Certificate, now: Date): void {
  if (new Date(cert.validTo) < now) {
    throw badConfig(`${variable}: the certificate expired on ${new Date(cert.validTo).toISOString()}`);
  }
  if (new Date(cert.validFrom) > now) {
    throw badConfig(
      `${variable}: the certificate is not valid before ${new Date(cert.validFrom).toISOString()}`,
    );
  }
}

interface TlsEnv {
  readonly KAFKA_TLS?: boolean | undefined;
  readonly KAFKA_TLS_CA_FILE?: string | undefined;
  readonly KAFKA_TLS_CERT_FILE?: string | undefined;
  readonly KAFKA_TLS_KEY_FILE?: string | undefined;
  readonly KAFKA_TLS_CHECK_SERVER_NAME: boolean;
}

/** Kafka's TLS settings with their files read and checked; null when TLS is off. */
export function tlsFiles(e: TlsEnv, read: FileReader = readUtf8, now = new Date()): KafkaTls | null {
  const anyFile = e.KAFKA_TLS_CA_FILE ?? e.KAFKA_TLS_CERT_FILE ?? e.KAFKA_TLS_KEY_FILE;
  if (e.KAFKA_TLS === false && anyFile !== undefined) {
    throw badConfig('KAFKA_TLS: false, but a KAFKA_TLS_* file is set');
  }
  if (e.KAFKA_TLS !== true && anyFile === undefined) return null;
  if ((e.KAFKA_TLS_CERT_FILE === undefined) !== (e.KAFKA_TLS_KEY_FILE === undefined)) {
    throw badConfig(
      `${e.KAFKA_TLS_CERT_FILE === undefined ? 'KAFKA_TLS_CERT_FILE' : 'KAFKA_TLS_KEY_FILE'}: mTLS needs both KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE`,
    );
  }
  const ca =
    e.KAFKA_TLS_CA_FILE === undefined
      ? undefined
      : readSettingFile('KAFKA_TLS_CA_FILE', e.KAFKA_TLS_CA_FILE, read);
  if (ca !== undefined) certificate('KAFKA_TLS_CA_FILE', ca);
  let cert: string | undefined;
  let key: string | undefined;
  if (e.KAFKA_TLS_CERT_FILE !== undefined && e.KAFKA_TLS_KEY_FILE !== undefined) {
    cert = readSettingFile('KAFKA_TLS_CERT_FILE', e.KAFKA_TLS_CERT_FILE, read);
    key = readSettingFile('KAFKA_TLS_KEY_FILE', e.KAFKA_TLS_KEY_FILE, read);
    const x509 = certificate('KAFKA_TLS_CERT_FILE', cert);
    checkValidity('KAFKA_TLS_CERT_FILE', x509, now);
    let privateKey: ReturnType<typeof createPrivateKey>;
    try {
      privateKey = createPrivateKey(key);
    } catch (err) {
      throw badConfig(`KAFKA_TLS_KEY_FILE: not a PEM private key (${(err as Error).message})`);
    }
    if (!x509.checkPrivateKey(privateKey)) {
      throw badConfig(
        'KAFKA_TLS_KEY_FILE: the key does not belong to the certificate in KAFKA_TLS_CERT_FILE',
      );
    }
  }
  return { ca, cert, key, checkServerName: e.KAFKA_TLS_CHECK_SERVER_NAME };
}
