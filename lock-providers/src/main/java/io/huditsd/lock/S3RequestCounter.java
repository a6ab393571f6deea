package io.huditsd.lock;

import com.amazonaws.AmazonServiceException;
import com.amazonaws.handlers.HandlerAfterAttemptContext;
import com.amazonaws.handlers.HandlerBeforeAttemptContext;
import com.amazonaws.handlers.RequestHandler2;

/**
 * Counts every HTTP attempt of the lock's S3 client into {@link LockStorageRequests}: attempts, not calls, so that
 * the SDK's retries (503 SlowDown is retried with exponential back-off and jitter) are counted as the store bills
 * them.
 */
final class S3RequestCounter extends RequestHandler2 {
  private static final int SLOW_DOWN = 503;
  private static final int TOO_MANY_REQUESTS = 429;

  @Override
  public void beforeAttempt(HandlerBeforeAttemptContext context) {
    LockStorageRequests.requested(context.getRequest().getHttpMethod().name());
  }

  @Override
  public void afterAttempt(HandlerAfterAttemptContext context) {
    if (context.getException() instanceof AmazonServiceException failure
        && (failure.getStatusCode() == SLOW_DOWN || failure.getStatusCode() == TOO_MANY_REQUESTS)) {
      LockStorageRequests.throttled(context.getRequest().getHttpMethod().name());
    }
  }
}
