package io.nvmf4j.initiator;

import java.io.IOException;

/**
 * Base of every failure the host library reports at its boundary: an NVMe status, a refused or lost connection,
 * a timeout. Messages are one clear sentence for a command line.
 */
public class NvmfException extends IOException {
    private static final long serialVersionUID = 1L;

    public NvmfException(String message) {
        super(message);
    }

    public NvmfException(String message, Throwable cause) {
        super(message, cause);
    }
}
