/**
 * What the providers (softiwarp, ibverbs) share: checks and helpers written once. Not exported by the module
 * {@code io.nvmf4j.verbs}: public only so that both provider packages reach it.
 */
package io.nvmf4j.verbs.provider;
