import sys

from mutants.run import main

sys.exit(main())
