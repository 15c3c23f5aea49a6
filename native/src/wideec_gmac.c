/*
 * AES-256-GMAC frame tags for the slice transport (org.wideec.transport.NativeGmac), through the system's OpenSSL.
 *
 * The slice port tags every frame after its handshake. HMAC-SHA256 costs about 0.5 ns per byte on a core, which a
 * chain encode pays twice per hop (sign, verify): it was a third of the CPU of a k = 64 chain (benchmarks/HISTORY.md).
 * GMAC is AES-GCM with the frame as additional data and no plaintext: OpenSSL's carry-less-multiply GHASH runs
 * 5x faster than HMAC-SHA256 and twice as fast as the JDK's GCM. The tag is the standard AES-GCM tag, so the JDK's
 * Cipher("AES/GCM/NoPadding") computes the same bytes and either side may use either implementation.
 *
 * libcrypto is opened with dlopen, as libhadoop opens it for its OpenSSL cipher: this library (and the native
 * coder in it) must load on a machine without OpenSSL; only GMAC's fast path is then unavailable. The calls used
 * (EVP_CIPHER_CTX_new/free, EVP_aes_256_gcm, EVP_EncryptInit_ex/Update/Final_ex, EVP_CIPHER_CTX_ctrl) have kept
 * their signatures from OpenSSL 1.1 to 3.x.
 */
#include <dlfcn.h>
#include <jni.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#define GMAC_TAG 16
#define GMAC_KEY 32
/* EVP_CTRL_GCM_GET_TAG (EVP_CTRL_AEAD_GET_TAG) in OpenSSL's evp.h. */
#define CTRL_GCM_GET_TAG 0x10

typedef void *(*ctx_new_fn)(void);
typedef void (*ctx_free_fn)(void *);
typedef const void *(*cipher_fn)(void);
typedef int (*init_fn)(void *, const void *, void *, const unsigned char *, const unsigned char *);
typedef int (*update_fn)(void *, unsigned char *, int *, const unsigned char *, int);
typedef int (*final_fn)(void *, unsigned char *, int *);
typedef int (*ctrl_fn)(void *, int, int, void *);

static struct {
  ctx_new_fn ctx_new;
  ctx_free_fn ctx_free;
  cipher_fn aes_256_gcm;
  init_fn init;
  update_fn update;
  final_fn final;
  ctrl_fn ctrl;
} ossl;
static const char *unavailable = "not probed";
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
  static const char *names[] = {"libcrypto.so.3", "libcrypto.so.1.1", "libcrypto.so"};
  void *h = NULL;
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && h == NULL; i++) {
    h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  }
  if (h == NULL) {
    unavailable = "libcrypto (OpenSSL) not found: apt-get install libssl3";
    return;
  }
  ossl.ctx_new = (ctx_new_fn) dlsym(h, "EVP_CIPHER_CTX_new");
  ossl.ctx_free = (ctx_free_fn) dlsym(h, "EVP_CIPHER_CTX_free");
  ossl.aes_256_gcm = (cipher_fn) dlsym(h, "EVP_aes_256_gcm");
  ossl.init = (init_fn) dlsym(h, "EVP_EncryptInit_ex");
  ossl.update = (update_fn) dlsym(h, "EVP_EncryptUpdate");
  ossl.final = (final_fn) dlsym(h, "EVP_EncryptFinal_ex");
  ossl.ctrl = (ctrl_fn) dlsym(h, "EVP_CIPHER_CTX_ctrl");
  if (!ossl.ctx_new || !ossl.ctx_free || !ossl.aes_256_gcm || !ossl.init || !ossl.update || !ossl.final || !ossl.ctrl) {
    unavailable = "libcrypto lacks the EVP AES-GCM calls";
    return;
  }
  unavailable = NULL;
}

/* Why GMAC cannot run natively, or null. */
JNIEXPORT jstring JNICALL Java_org_wideec_transport_NativeGmac_probe(JNIEnv *env, jclass cls) {
  pthread_once(&once, load);
  return unavailable == NULL ? NULL : (*env)->NewStringUTF(env, unavailable);
}

/* A context keyed with the 32-byte key, or 0. Only after probe() returned null. */
JNIEXPORT jlong JNICALL Java_org_wideec_transport_NativeGmac_create(JNIEnv *env, jclass cls, jbyteArray key) {
  unsigned char k[GMAC_KEY];
  if ((*env)->GetArrayLength(env, key) != GMAC_KEY) {
    return 0;
  }
  (*env)->GetByteArrayRegion(env, key, 0, GMAC_KEY, (jbyte *) k);
  void *ctx = ossl.ctx_new();
  if (ctx != NULL && ossl.init(ctx, ossl.aes_256_gcm(), NULL, k, NULL) != 1) {
    ossl.ctx_free(ctx);
    ctx = NULL;
  }
  explicit_bzero(k, sizeof(k));
  return (jlong) (intptr_t) ctx;
}

JNIEXPORT void JNICALL Java_org_wideec_transport_NativeGmac_free(JNIEnv *env, jclass cls, jlong ctx) {
  if (ctx != 0) {
    ossl.ctx_free((void *) (intptr_t) ctx);
  }
}

/* Adds len bytes at address (a direct buffer) or at offset of array (a heap buffer) to the additional data. */
static int aad(JNIEnv *env, void *ctx, jbyteArray array, jlong address, jint offset, jint len) {
  int outl = 0;
  if (len == 0) {
    return 1;
  }
  if (array == NULL) {
    return ossl.update(ctx, NULL, &outl, (const unsigned char *) (intptr_t) address + offset, len) == 1;
  }
  unsigned char *a = (*env)->GetPrimitiveArrayCritical(env, array, NULL);
  if (a == NULL) {
    return 0;
  }
  int ok = ossl.update(ctx, NULL, &outl, a + offset, len) == 1;
  (*env)->ReleasePrimitiveArrayCritical(env, array, a, JNI_ABORT);
  return ok;
}

/*
 * The tag of one frame: nonce = 4 zero bytes and seq big-endian (unique per key: each direction of a session has
 * its own key and counts its frames), additional data = region a then region b, no plaintext. Returns false when
 * OpenSSL fails (the caller then fails the connection).
 */
JNIEXPORT jboolean JNICALL Java_org_wideec_transport_NativeGmac_tag(JNIEnv *env, jclass cls, jlong ctx, jlong seq,
    jbyteArray aArray, jlong aAddress, jint aOffset, jint aLen, jbyteArray bArray, jlong bAddress, jint bOffset,
    jint bLen, jbyteArray tag) {
  void *c = (void *) (intptr_t) ctx;
  unsigned char iv[12] = {0};
  unsigned char t[GMAC_TAG];
  int outl = 0;
  for (int i = 0; i < 8; i++) {
    iv[4 + i] = (unsigned char) ((uint64_t) seq >> (56 - 8 * i));
  }
  if (ossl.init(c, NULL, NULL, NULL, iv) != 1 || !aad(env, c, aArray, aAddress, aOffset, aLen)
      || !aad(env, c, bArray, bAddress, bOffset, bLen) || ossl.final(c, t, &outl) != 1
      || ossl.ctrl(c, CTRL_GCM_GET_TAG, GMAC_TAG, t) != 1) {
    return JNI_FALSE;
  }
  (*env)->SetByteArrayRegion(env, tag, 0, GMAC_TAG, (jbyte *) t);
  return JNI_TRUE;
}
