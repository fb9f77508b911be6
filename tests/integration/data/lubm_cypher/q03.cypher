// LUBM Query 3: publications of AssistantProfessor0 (Publication has a wide class hierarchy).
MATCH (x:Publication)-[:publicationAuthor]->(:Resource {uri: 'http://www.Department0.University0.edu/AssistantProfessor0'})
RETURN x AS X
