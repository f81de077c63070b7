// `@ston-fi/blueprint-utils` loads the Blueprint CLI (`@ton/blueprint`) at import time for one helper, `compile`,
// which compiles contract sources. The harness uses only its precompiled code and wrappers, so that import
// resolves here instead of pulling the CLI (and the compilers it peers with) into the test's dependencies.
module.exports = {
    compile() {
        throw new Error('@ton/blueprint is not installed in the e2e harness: nothing is compiled here');
    },
};
