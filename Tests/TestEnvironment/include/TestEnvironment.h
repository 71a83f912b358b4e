#ifndef UTI_TEST_ENVIRONMENT_H
#define UTI_TEST_ENVIRONMENT_H

/// The folder the test process's HOME and XDG folders point into (made
/// when the test bundle is loaded, removed when the process exits).
const char *uti_test_home(void);

#endif
