from grader.engine.cli import main

raise SystemExit(main())
