package io.nvmf4j.initiator;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Blocking waits on the library's futures with a bound, unwrapping to the library's exceptions. */
final class Futures {

    private Futures() {
    }

    static <T> T await(CompletableFuture<T> future, long timeoutMillis, String what) throws NvmfException {
        try {
            return future.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NvmfException(what + ": interrupted", e);
        } catch (TimeoutException e) {
            throw new NvmfTimeoutException(what + ": no completion within " + timeoutMillis + " ms");
        } catch (ExecutionException | CompletionException e) {
            throw unwrap(e.getCause(), what);
        }
    }

    static NvmfException unwrap(Throwable cause, String what) {
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof NvmfException n) {
            return n;
        }
        return new NvmfException(what + ": " + cause, cause);
    }
}
