package io.nvmf4j.target;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.target.backend.BackendException;
import java.lang.System.Logger.Level;

/**
 * Namespace Write Protection Config (feature 84h; NVMe Base 2.0, Set Features, Figure 317, and the Namespace
 * Write Protection chapter), as nvmet_get_feat_write_protect() and nvmet_set_feat_write_protect() serve it with
 * Identify Controller NWPC = 1 (no write protection and write protection, no "until power cycle" or permanent
 * states). The NSID of the command names the namespace
 * (nvmet_req_find_ns(): Invalid Namespace, or a path error for a disabled one). Write protection flushes the
 * backend first and tells every controller the namespace changed (nvmet_ns_changed()); a protected namespace
 * executes only Read and Flush ({@link IoCommands}).
 */
final class WriteProtectFeature {

    private static final System.Logger LOG = System.getLogger(WriteProtectFeature.class.getName());

    static final int NO_WRITE_PROTECT = 0;
    static final int WRITE_PROTECT = 1;

    private WriteProtectFeature() {
    }

    static Status get(Request req) {
        SubsystemNamespace ns = findNamespace(req);
        if (ns == null) {
            return namespaceStatus(req);
        }
        req.cqe().dw0(ns.isWriteProtected() ? WRITE_PROTECT : NO_WRITE_PROTECT);
        return Status.SUCCESS;
    }

    static Status set(Request req) {
        SubsystemNamespace ns = findNamespace(req);
        if (ns == null) {
            return namespaceStatus(req);
        }
        Subsystem subsys = req.queue().controller().subsystem();
        int state = req.sqe().cdw11();
        synchronized (subsys) {
            if (state == WRITE_PROTECT) {
                try {
                    // what was acknowledged before protection is on stable storage (nvmet_write_protect_flush_sync())
                    ns.backend().flush();
                } catch (BackendException e) {
                    LOG.log(Level.WARNING, "write protect flush failed for namespace {0}: {1}", ns.nsid(),
                            e.getMessage());
                    return StatusCode.INTERNAL.status();
                }
                ns.writeProtected(true);
            } else if (state == NO_WRITE_PROTECT) {
                ns.writeProtected(false);
            } else {
                // NWPC = 1 offers states 0 and 1 only; nvmet leaves other values unanswered (success, no change)
                req.errorLocation(AdminCommands.OFFSET_CDW11);
                return StatusCode.INVALID_FIELD.withDnr();
            }
            subsys.namespaceChanged(ns.nsid());
        }
        return Status.SUCCESS;
    }

    private static SubsystemNamespace findNamespace(Request req) {
        return req.queue().controller().subsystem().activeNamespace(req.sqe().nsid());
    }

    /** nvmet_req_find_ns(): a configured but disabled namespace is a path error, an unknown one Invalid NS. */
    private static Status namespaceStatus(Request req) {
        req.errorLocation(SubmissionQueueEntry.OFFSET_NSID);
        return req.queue().controller().subsystem().hasNamespace(req.sqe().nsid())
                ? StatusCode.INTERNAL_PATH_ERROR.status()
                : StatusCode.INVALID_NS.withDnr();
    }
}
