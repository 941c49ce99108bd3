package io.nvmf4j.verbs.provider;

import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;

/**
 * The private-data limit of connection setup, checked before anything is sent or answered: a connect or accept
 * whose private data does not fit fails with INVALID_ARGUMENT and leaves the request unanswered (as
 * {@code rdma_connect}/{@code rdma_accept} fail with EINVAL before the CM sends a word). The limit is the
 * transport's: MPA (RFC 5044 7.1: 512 bytes, less RFC 6581's IRD/ORD words) or {@code rdma_conn_param}'s
 * one-byte length.
 */
public final class PrivateData {
    private PrivateData() {
    }

    /** Null means none; otherwise at most {@code max} bytes, which {@code carrier} holds. */
    public static void checkLength(byte[] privateData, int max, String carrier) throws VerbsException {
        if (privateData != null && privateData.length > max) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT, privateData.length
                    + " bytes of private data, " + carrier + " carries at most " + max);
        }
    }
}
